"""Entry point of the attention visualizer: `./dev.sh app`."""
import streamlit as st

st.set_page_config(page_title="Attention visualizer", layout="wide")
st.title("Attention visualizer")
st.info("The pages are on their way: the core model is in core_model/, and the app comes next.")

"""The floor under "first chart opening a link in a fresh browser": a Streamlit page holding one small plotly chart
and nothing else. bench/run.py times it in a fresh browser context beside the app's explorer: what Streamlit's
frontend and plotly's bundle cost before any chart of ours is drawn. Served as the app is: with Nagle's algorithm
off on the server's connections (viz_app/serving.py)."""
import plotly.graph_objects as go
import streamlit as st

from viz_app.serving import send_at_once

send_at_once()

st.title("One chart")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[1, 3, 2])), key="floor")

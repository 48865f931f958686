"""What the app's pages share: figures, cached loaders, session state, sidebar, UI strings."""

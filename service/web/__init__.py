"""Web pages for people who follow a mailed link (the full seat pages come later)."""

"""One adapter per chat platform."""

"""What players see: screens, per-game screens, news and translations."""

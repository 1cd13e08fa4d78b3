"""What every game shares: cards, rng, errors, the record envelope, storage, stats."""

"""What every game shares: cards, rng, errors, the record envelope, storage, stats, the
arena's request and report, the `Game` protocol."""

"""Speech output: voice packs, the sentences of rulings, and the speaker."""

"""Operations on a whole index: doctor, migrate, warm-up, snapshots, reindex, the demo corpus."""

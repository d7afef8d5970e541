"""The biomed encoder labels and the models behind them (cross-encoder, late interaction, vision)."""

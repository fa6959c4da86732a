"""Stock, pricing and batching for a small warehouse."""

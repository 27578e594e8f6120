"""rote_hf.symbolic"""

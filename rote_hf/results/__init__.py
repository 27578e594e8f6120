"""rote_hf.results"""

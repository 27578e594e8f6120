"""rote_hf.metrics"""

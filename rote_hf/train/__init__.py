"""rote_hf.train"""

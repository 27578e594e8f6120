"""rote_hf.zoo"""

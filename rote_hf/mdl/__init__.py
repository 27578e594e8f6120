"""rote_hf.mdl"""

"""rote_hf.cogscale"""

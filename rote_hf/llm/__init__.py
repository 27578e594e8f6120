"""rote_hf.llm"""

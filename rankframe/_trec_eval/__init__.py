"""The trec_eval dialect: its command line and output, ``qrels_jg`` and its preference measures.

Built on the engine: the measures are the registry's, evaluated by the same plan, printed as
trec_eval 10.0 prints them.
"""

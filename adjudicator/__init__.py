"""pamir's adjudicator: for now the `pamir` command line and its demo.

The service around the engine (game repositories, the pipeline, mail, web) lives here.
"""

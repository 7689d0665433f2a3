"""pamir's adjudicator service: game repositories, the pipeline, mail, web and the CLI."""

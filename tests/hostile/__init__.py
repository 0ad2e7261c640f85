"""The hostile corpus: installed plugins, sources, configs, secrets and schemas written by an attacker
or a careless admin, each case asserting the defended behaviour."""

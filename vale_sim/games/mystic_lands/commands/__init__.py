"""The command lines of Mystic Lands' studies (registered in ``GAME.studies``)."""

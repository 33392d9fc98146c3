"""The command lines of Mystic Vale's studies (registered in ``GAME.studies``)."""

"""The command lines of Mystic Vale' studies (registered in ``GAME.studies``)."""

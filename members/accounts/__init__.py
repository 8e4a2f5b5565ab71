"""Logins for members (issue 19 item 1, issue 21 item 5): sign-up requests, invitations by
email and the one place a login is linked to a membership record."""

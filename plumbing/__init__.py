"""What every app builds on and none owns: the ASGI handler and the request limits, errors and
inputs, the shared counters, socket sign-in and limits, logs, metrics and health.

It imports no app (a contract in pyproject.toml); the project (``piramide_site``) wires it in.
"""

"""A helper the Python snippets import."""


def greet(name):
    return f"hello, {name}"

"""Routes: the ways from a command's inputs to its answer, and the one place that picks one.

:func:`evaladdon.routes.plan.plan_summarize` / :func:`~evaladdon.routes.plan.plan_compare` list
the routes that may serve a command's options, fastest first; :func:`~evaladdon.routes.plan.run`
takes the first that does not decline.  The last is always ``table`` (read the canonical table,
then ``analysis``), the reference every other route is proven equal to.  Importing this package
imports none of the route modules.
"""

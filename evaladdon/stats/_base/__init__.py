"""The base of :mod:`evaladdon.stats`: argument checks, distributions without scipy.stats, root
finding, the :class:`~evaladdon.stats._base.result.Result` mixin and
:class:`~evaladdon.stats._base.result.Interval`, and the zero-SE rule."""

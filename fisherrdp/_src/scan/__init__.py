"""The scan engine and the registry of named quantities.

Layers, lowest first:

* :mod:`.engine`: chunking, sharding over the local devices and the dispatch pipeline. It knows
  nothing of fisherrdp's numerics; ``verify``, ``figures`` and the accountant call it.
* :mod:`.store`: the zarr store that holds a scan's chunks as they complete (resume, several
  processes).
* :mod:`.grid`: named axes and explicit point lists, and their cut into blocks.
* :mod:`.quantities`: the registry of named quantities (above the functions it names).
* :mod:`.api`: :func:`scan` and :class:`ScanResult`, public as :mod:`fisherrdp.scan`.
"""

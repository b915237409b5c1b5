"""Upgrade impact: what changes in gather when a framework moves to another version.

``gather-conformance upgrade onnxruntime==1.31.1 onnxruntime==1.32.0`` builds one
isolated environment per version (:mod:`~conformance.upgrade.environments`,
cached between runs), reads there which version it really got, runs the probe
atlas, the baseline replay and a short seeded fuzz in each (the ``check``
command, on that framework's oracles only), then compares the runs in this
process: the atlas cells whose behaviour changed, findings that appeared or
disappeared, baseline entries fixed upstream, with a timeline per cell when
three or more versions are given (:mod:`~conformance.upgrade.timeline`), a
verdict usable as a gate (:mod:`~conformance.upgrade.verdict`), one report
folder (:mod:`~conformance.upgrade.report_folder`) and, on request, a draft
baseline whose version ranges follow what was observed
(:mod:`~conformance.upgrade.ranges`).
"""

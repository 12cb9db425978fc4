"""Helpers every reader shares: the one value converter (:mod:`.scores`), the input guards
(:mod:`.guard`: nesting depth, decompressed size), JSON documents and lines (:mod:`.jsondoc`,
:mod:`.jsonlines`) and the zip central-directory scan (:mod:`.zipdir`).  Nothing here is
about one harness; nothing here is imported at ``evaladdon.adapters.common`` import time."""

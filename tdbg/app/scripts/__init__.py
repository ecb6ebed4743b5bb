"""The training and playing commands (``tdbg train batch``, ``tdbg h2h`` ...): each module's
``build_parser`` and ``main``, run by the ``tdbg`` command (tdbg.app.tdbg_command) and by the
thin scripts of the same name at the repository's root (``python train_batch.py``)."""

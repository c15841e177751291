//! The Python environment on disk: site-packages, dist-info, the installed torch, the dynamic loader model and the environment scan. Reads files; never imports or executes them.

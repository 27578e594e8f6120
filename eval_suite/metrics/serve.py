"""How every metric Space serves its demo (copied beside each metric repo's ``app.py``).

On the Hub the Space runtime sets ``GRADIO_SERVER_NAME`` (0.0.0.0) and ``GRADIO_SERVER_PORT``
(7860); an explicit host in ``launch()`` would override them and the Space would never answer.
Locally, without them, the demo stays on loopback.
"""

import os


def launch(demo) -> None:
    """Serve ``demo`` on $GRADIO_SERVER_NAME:$GRADIO_SERVER_PORT, default 127.0.0.1 and 7860 or the next free port."""
    port = os.environ.get("GRADIO_SERVER_PORT")
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), server_port=int(port) if port else None)

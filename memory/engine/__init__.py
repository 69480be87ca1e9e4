"""The retrieval engine: pure Python, callable without HTTP (tests, bench/, the MCP tool).

    retrieve(workspace, prompt, history) -> Retrieval
"""

from memory.engine.search import retrieve
from memory.engine.types import Retrieval, RetrievalTimeout

__all__ = ["Retrieval", "RetrievalTimeout", "retrieve"]

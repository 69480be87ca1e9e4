"""The retrieval engine: pure Python, callable without HTTP (tests, bench/, the MCP tool).

    retrieve(workspace, prompt, history) -> Retrieval
"""

from memory.engine.search import retrieve
from memory.engine.types import IndexUnavailable, Retrieval, RetrievalTimeout

__all__ = ["IndexUnavailable", "Retrieval", "RetrievalTimeout", "retrieve"]

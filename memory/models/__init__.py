from .memory import (
    BUCKET_PATTERN,
    MAX_KEY_LABELS,
    AgentMemory,
    AgentMemoryAudit,
    AgentMemoryVersion,
    Document,
    Entity,
    Fact,
    IndexVersion,
    PipelineRun,
    Relationship,
    Section,
    Source,
)
from .sessions import McpSession, SessionPrompt
from .workspace import User, Workspace

__all__ = [
    "BUCKET_PATTERN",
    "MAX_KEY_LABELS",
    "AgentMemory",
    "AgentMemoryAudit",
    "AgentMemoryVersion",
    "Document",
    "Entity",
    "Fact",
    "IndexVersion",
    "McpSession",
    "PipelineRun",
    "Relationship",
    "Section",
    "SessionPrompt",
    "Source",
    "User",
    "Workspace",
]

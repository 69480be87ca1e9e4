from .labels import BUCKET_PATTERN, MAX_KEY_LABELS
from .memory import (
    AgentMemory,
    AgentMemoryAudit,
    AgentMemoryTerm,
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
    "AgentMemoryTerm",
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

"""A LangChain chat model that plays the scripted model of the framework contract (contract.py):
turn 1 calls the tool the prompt asks for; after a tool message, the final text quotes it.
LangChain's own fake chat models cannot bind tools; this one keeps them (`bind_tools` returns it).
Used by the adapters whose agents are LangChain/LangGraph agents (langchain_mcp.py, mcp_use_adapter.py)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

import contract


class ScriptedChatModel(BaseChatModel):
    """Turn 1 calls the tool the prompt asks for; after a tool message, the final text quotes it."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            message = AIMessage(content=contract.final_text(last.content))
        else:
            # The last human message: an agent may keep its conversation.
            prompt = [m.content for m in messages if isinstance(m, HumanMessage)][-1]
            name, arguments = contract.first_turn(str(prompt))
            message = AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": f"call-{name}", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=message)])

# agent/format/format.mk - what the agent writes and the readers read: the
# journal's records and the agent's exported ABI.  Headers only; includes
# nothing else of jsym's.

INC_agent/format := -Iagent/format

"""The span attribute names the TypeScript SDK writes and Sieve reads back, the same keys and values
as @sieve/protocol's GEN_AI, OTHER and SIEVE_ATTR (protocol/src/semconv.ts): OpenTelemetry GenAI
semantic conventions v1.41.1, the general conventions the SDKs set, and Sieve's own names.
sdk/test/python-sdk.test.ts fails when the two lists differ, so change them together.
"""

GEN_AI = {
    "operationName": "gen_ai.operation.name",
    "providerName": "gen_ai.provider.name",
    "requestModel": "gen_ai.request.model",
    "requestMaxTokens": "gen_ai.request.max_tokens",
    "requestTemperature": "gen_ai.request.temperature",
    "requestTopP": "gen_ai.request.top_p",
    "requestFrequencyPenalty": "gen_ai.request.frequency_penalty",
    "requestPresencePenalty": "gen_ai.request.presence_penalty",
    "requestSeed": "gen_ai.request.seed",
    "requestStopSequences": "gen_ai.request.stop_sequences",
    "requestChoiceCount": "gen_ai.request.choice.count",
    "requestStream": "gen_ai.request.stream",
    "outputType": "gen_ai.output.type",
    "responseId": "gen_ai.response.id",
    "responseModel": "gen_ai.response.model",
    "responseFinishReasons": "gen_ai.response.finish_reasons",
    "responseTimeToFirstChunk": "gen_ai.response.time_to_first_chunk",
    "usageInputTokens": "gen_ai.usage.input_tokens",
    "usageOutputTokens": "gen_ai.usage.output_tokens",
    "usageCacheReadInputTokens": "gen_ai.usage.cache_read.input_tokens",
    "usageReasoningOutputTokens": "gen_ai.usage.reasoning.output_tokens",
    "conversationId": "gen_ai.conversation.id",
    "agentName": "gen_ai.agent.name",
    "agentId": "gen_ai.agent.id",
    "agentDescription": "gen_ai.agent.description",
    "agentVersion": "gen_ai.agent.version",
    "toolName": "gen_ai.tool.name",
    "toolType": "gen_ai.tool.type",
    "toolDescription": "gen_ai.tool.description",
    "toolCallId": "gen_ai.tool.call.id",
    "toolCallArguments": "gen_ai.tool.call.arguments",
    "toolCallResult": "gen_ai.tool.call.result",
    "toolDefinitions": "gen_ai.tool.definitions",
    "systemInstructions": "gen_ai.system_instructions",
    "inputMessages": "gen_ai.input.messages",
    "outputMessages": "gen_ai.output.messages",
}

OTHER = {
    "errorType": "error.type",
    "serverAddress": "server.address",
    "serverPort": "server.port",
    "userId": "user.id",
    "httpResendCount": "http.request.resend_count",
    "httpStatusCode": "http.response.status_code",
    "serviceName": "service.name",
    "serviceVersion": "service.version",
    "environment": "deployment.environment.name",
    "distroName": "telemetry.distro.name",
    "distroVersion": "telemetry.distro.version",
}

SIEVE_ATTR = {
    "promptVersion": "sieve.prompt.version",
    "agentVersion": "sieve.agent.version",
    "modelVersion": "sieve.model.version",
}

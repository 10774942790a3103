// An agent turn traced with the OpenTelemetry Go SDK and exported over OTLP/HTTP protobuf, configured
// only by the standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers, compression) and
// OTEL_SERVICE_NAME, as a Go service would be. Prints the trace id. collector/test/otlp-clients.test.ts
// runs it against the collector.
package main

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	ctx := context.Background()
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "exporter:", err)
		os.Exit(1)
	}
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(resource.Environment()))
	tracer := provider.Tracer("sieve.test.go-agent", trace.WithInstrumentationVersion("1.0.0"))

	ctx, agent := tracer.Start(ctx, "invoke_agent support", trace.WithSpanKind(trace.SpanKindServer))
	agent.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "support"), attribute.String("session.id", "go-session-1"))

	_, chat := tracer.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient))
	chat.SetAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.request.model", "gpt-4o"),
		attribute.Int64("gen_ai.usage.input_tokens", 42),
		attribute.Float64("gen_ai.request.temperature", 0.25),
		attribute.Bool("gen_ai.request.stream", false),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{"tool_calls"}),
		attribute.Int64Slice("example.ints", []int64{1, -2, 9007199254740993}),
		attribute.String("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Where is order A-1?"}]}]`),
		attribute.String("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"lookup_order","arguments":{"order_id":"A-1"}}],"finish_reason":"tool_calls"}]`),
	)
	chat.End()

	_, tool := tracer.Start(ctx, "execute_tool lookup_order")
	tool.SetAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", "lookup_order"), attribute.String("gen_ai.tool.call.id", "call_1"))
	tool.End()
	agent.End()

	if err := provider.Shutdown(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
	fmt.Println(agent.SpanContext().TraceID())
}

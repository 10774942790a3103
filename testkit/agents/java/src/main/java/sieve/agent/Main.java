package sieve.agent;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporterBuilder;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An agent turn traced with the OpenTelemetry Java SDK and exported over OTLP/HTTP protobuf, set up from
 * the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_COMPRESSION
 * and OTEL_SERVICE_NAME variables (read here as the SDK's autoconfigure module would). Prints the trace id.
 */
public final class Main {
  public static void main(String[] args) {
    OtlpHttpSpanExporterBuilder exporter = OtlpHttpSpanExporter.builder()
        .setEndpoint(System.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
        .setCompression(System.getenv().getOrDefault("OTEL_EXPORTER_OTLP_COMPRESSION", "none"));
    String headers = System.getenv().getOrDefault("OTEL_EXPORTER_OTLP_HEADERS", "");
    for (String pair : headers.split(",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) exporter.addHeader(pair.substring(0, eq).trim(), URLDecoder.decode(pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
    }
    Resource resource = Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), System.getenv("OTEL_SERVICE_NAME")));
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .addSpanProcessor(BatchSpanProcessor.builder(exporter.build()).build())
        .setResource(resource)
        .build();
    Tracer tracer = provider.tracerBuilder("sieve.test.java-agent").setInstrumentationVersion("1.0.0").build();

    Span agent = tracer.spanBuilder("invoke_agent support").setSpanKind(SpanKind.SERVER).startSpan();
    agent.setAttribute("gen_ai.operation.name", "invoke_agent");
    agent.setAttribute("gen_ai.agent.name", "support");
    agent.setAttribute("session.id", "java-session-1");
    try (Scope scope = agent.makeCurrent()) {
      Span chat = tracer.spanBuilder("chat gpt-4o").setSpanKind(SpanKind.CLIENT).startSpan();
      chat.setAttribute("gen_ai.operation.name", "chat");
      chat.setAttribute("gen_ai.request.model", "gpt-4o");
      chat.setAttribute("gen_ai.usage.input_tokens", 42L);
      chat.setAttribute("gen_ai.request.temperature", 0.25);
      chat.setAttribute("gen_ai.request.stream", false);
      chat.setAttribute(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons"), List.of("tool_calls"));
      chat.setAttribute(AttributeKey.longArrayKey("example.ints"), List.of(1L, -2L, 9007199254740993L));
      chat.setAttribute("gen_ai.input.messages", "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Where is order A-1?\"}]}]");
      chat.setAttribute("gen_ai.output.messages", "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"lookup_order\",\"arguments\":{\"order_id\":\"A-1\"}}],\"finish_reason\":\"tool_calls\"}]");
      chat.end();

      Span tool = tracer.spanBuilder("execute_tool lookup_order").startSpan();
      tool.setAttribute("gen_ai.operation.name", "execute_tool");
      tool.setAttribute("gen_ai.tool.name", "lookup_order");
      tool.setAttribute("gen_ai.tool.call.id", "call_1");
      tool.end();
    }
    agent.end();

    boolean exported = provider.shutdown().join(30, TimeUnit.SECONDS).isSuccess();
    if (!exported) {
      System.err.println("export failed");
      System.exit(1);
    }
    System.out.println(agent.getSpanContext().getTraceId());
  }
}

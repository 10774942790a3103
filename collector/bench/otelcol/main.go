// Command sieve-bench-otelcol is the peer of `npm run bench:ingest -- --kafka --vs-otelcol`: an
// OpenTelemetry Collector with only the OTLP receiver, the batch processor and the contrib Kafka
// exporter, put together as the OpenTelemetry Collector Builder's generated main does
// (otelcol.NewCommand with a factories function). ingest-kafka.ts builds it into .cache/otelcol
// and writes its config; run by hand as `sieve-bench-otelcol --config=file:<path>`.
package main

import (
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func components() (otelcol.Factories, error) {
	var err error
	factories := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	if factories.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Processors, err = otelcol.MakeFactoryMap[processor.Factory](batchprocessor.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](kafkaexporter.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	return factories, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "sieve-bench-otelcol", Description: "OTLP receiver, batch processor, Kafka exporter", Version: "0.165.0"},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{ProviderFactories: []confmap.ProviderFactory{envprovider.NewFactory(), fileprovider.NewFactory()}},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		os.Exit(1) // cobra has printed the error
	}
}

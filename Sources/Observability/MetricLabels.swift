/// Labels the worker's and the monitor's metrics share.
public enum MetricLabels {
    /// The label naming a service: `service`, and `backend` with the same value until 0.12 (the
    /// label's name before 0.11; docs/configuration.md, "Metrics and probes").
    public static func service(_ name: String) -> [(String, String)] { [("service", name), ("backend", name)] }
}

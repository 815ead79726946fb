import Foundation

/// Image Discerner's documented answers, verbatim from the service's public repository
/// (beaucronin/image-discerner, docs/api-reference.md): the `body` of `analysis_result`. The
/// response-format example is complete; the "Example Responses" show only `entities`.
enum DiscernerDocumentedAnswers {
    static let responseFormatVersion3 = """
        {
          "analysis_complete": true,
          "timestamp": "2025-07-17T18:45:19.725642+00:00",
          
          "entities": [
            {
              "type": "commercial_vehicle:van",
              "operator": "USPS",
              "identifiers": [
                "fleet:8424021",
                "license_plate:unknown:ABC123"
              ],
              "confidence": 0.85,
              "properties": {}
            }
          ],
          
          "processing_metadata": {
            "total_processing_time_ms": 8000,
            "classification_provider": "gcp_vision_rest",
            "text_provider": "gcp_vision_rest",
            "image_key": "processed/uploads/20250715-123456-abc123.jpg",
            "response_format_version": "3.0"
          }
        }
        """

    static let upsDeliveryTruck = """
        {
          "entities": [
            {
              "type": "commercial_vehicle:van",
              "operator": "UPS",
              "identifiers": [
                "fleet:1Z2345",
                "license_plate:unknown:BRN123"
              ],
              "confidence": 0.91,
              "properties": {}
            }
          ]
        }
        """

    static let uspsMailTruck = """
        {
          "entities": [
            {
              "type": "commercial_vehicle:van",
              "operator": "USPS",
              "identifiers": [
                "fleet:8424021"
              ],
              "confidence": 0.87,
              "properties": {}
            }
          ]
        }
        """

    static let shippingContainer = """
        {
          "entities": [
            {
              "type": "cargo_container",
              "operator": "Maersk",
              "identifiers": [
                "container_id:MSKU1234567"
              ],
              "confidence": 0.94,
              "properties": {
                "size_code": "45G1"
              }
            }
          ]
        }
        """

    static let multipleEntities = """
        {
          "entities": [
            {
              "type": "commercial_vehicle:tractor_trailer",
              "operator": "FedEx",
              "identifiers": [
                "fleet:FX1234",
                "license_plate:california:ABC123"
              ],
              "confidence": 0.89,
              "properties": {}
            },
            {
              "type": "cargo_container",
              "operator": "MSC",
              "identifiers": [
                "container_id:MSCU7654321"
              ],
              "confidence": 0.92,
              "properties": {
                "size_code": "20G1"
              }
            }
          ]
        }
        """

    /// The envelope `/analyze` wraps a body in (api_handler.py).
    static func envelope(_ body: String) -> Data {
        Data(
            """
            {"success": true, "execution_arn": "arn:aws:states:us-west-2:1:execution:image-discerner:analysis-20250717-184511",
             "execution_name": "analysis-20250717-184511", "analysis_result": {"statusCode": 200, "body": \(body)},
             "processing_time_seconds": 8}
            """.utf8)
    }
}

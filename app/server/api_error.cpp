#include "app/server/api_error.h"

namespace snapdoc::server {

nlohmann::json ApiError::body() const {
    nlohmann::json e = {{"message", what()}, {"type", type_}};
    e["param"] = param_.empty() ? nlohmann::json(nullptr) : nlohmann::json(param_);
    e["code"] = code_.empty() ? nlohmann::json(nullptr) : nlohmann::json(code_);
    return {{"error", e}};
}

ApiError bad_request(std::string message, std::string param, std::string code) {
    return ApiError(400, "invalid_request_error", std::move(message), std::move(code), std::move(param));
}

ApiError not_found(std::string message) {
    return ApiError(404, "not_found_error", std::move(message), "not_found");
}

ApiError server_busy(std::string message) {
    return ApiError(503, "server_busy_error", std::move(message), "server_busy");
}

nlohmann::json error_body_for_status(int status) {
    switch (status) {
        case 404:
            return not_found("no such route").body();
        case 413:
            return ApiError(413, "invalid_request_error",
                            "the request body is larger than the server accepts", "request_too_large")
                .body();
        case 414:
            return ApiError(414, "invalid_request_error", "the request URI is too long", "uri_too_long")
                .body();
        case 405:
            return ApiError(405, "invalid_request_error", "method not allowed on this route",
                            "method_not_allowed")
                .body();
        default:
            return ApiError(status, status >= 500 ? "server_error" : "invalid_request_error",
                            "request failed with HTTP status " + std::to_string(status))
                .body();
    }
}

}  // namespace snapdoc::server

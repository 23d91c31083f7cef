// Errors in the OpenAI shape ({"error": {"message", "type", "param", "code"}}) with their HTTP
// status: every route turns a failure into one of these, so a client never gets an HTML page or a
// bare status.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace snapdoc::server {

class ApiError : public std::runtime_error {
public:
    ApiError(int status, std::string type, std::string message, std::string code = {}, std::string param = {})
        : std::runtime_error(message),
          status_(status),
          type_(std::move(type)),
          code_(std::move(code)),
          param_(std::move(param)) {}

    int status() const { return status_; }
    nlohmann::json body() const;

private:
    int status_;
    std::string type_, code_, param_;
};

// 400 invalid_request_error naming the field (`param`).
ApiError bad_request(std::string message, std::string param = {}, std::string code = {});
ApiError not_found(std::string message);
ApiError server_busy(std::string message);  // 503

// The body for an error status that no route produced (404 unknown route, 413 from the body cap).
nlohmann::json error_body_for_status(int status);

}  // namespace snapdoc::server

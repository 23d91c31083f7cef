// EXPECT_FORMAT_ERROR(statement, "substring"): the statement must throw snapdoc::FormatError whose
// message contains the substring (any other exception fails the test as usual).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/common/error.h"

#define EXPECT_FORMAT_ERROR(stmt, substr)                                                          \
    do {                                                                                           \
        try {                                                                                      \
            stmt;                                                                                  \
            ADD_FAILURE() << "expected a FormatError containing '" << (substr) << "'";           \
        } catch (const ::snapdoc::FormatError& e_) {                                               \
            EXPECT_NE(std::string(e_.what()).find(substr), std::string::npos)                      \
                << "message: " << e_.what() << "\nexpected to contain: " << (substr);             \
        }                                                                                          \
    } while (0)

// The text of resources/models/catalogue.json, compiled in (the build writes catalogue_data.cpp
// from the file, so the program needs no resource folder to know its catalogue).
#pragma once

namespace snapdoc::hub {

extern const char* const kCatalogueJson;

}  // namespace snapdoc::hub

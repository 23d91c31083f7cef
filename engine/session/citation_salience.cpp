#include "engine/session/citation_salience.h"

#include <algorithm>

namespace snapdoc {

std::vector<Citation> salient_citations(std::vector<Citation> ranked, double min_lift, double min_share_of_top) {
    if (min_lift <= 0 || ranked.empty()) return ranked;
    double top = 0;
    for (const Citation& c : ranked) top = std::max(top, c.lift);
    const double cut = std::max(min_lift, min_share_of_top * top);
    std::vector<Citation> out;
    std::copy_if(ranked.begin(), ranked.end(), std::back_inserter(out),
                 [&](const Citation& c) { return c.lift >= cut; });
    if (out.empty()) {
        out.push_back(ranked.front());
        out.back().weak = true;
    }
    return out;
}

}  // namespace snapdoc

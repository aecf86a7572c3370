#include "server/http/field_lists.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace spindle::server {
namespace {

std::vector<std::string> elements(std::string_view list) {
    std::vector<std::string> out;
    find_list_element(list, [&](std::string_view element) {
        out.emplace_back(element);
        return false;
    });
    return out;
}

TEST(FieldLists, TrimsSpacesAndTabsOnly) {
    EXPECT_EQ(trim_ows(" \tgzip\t "), "gzip");
    EXPECT_EQ(trim_ows("a b"), "a b");
    EXPECT_EQ(trim_ows(" \t "), "");
}

TEST(FieldLists, ElementsAreTrimmedAndEmptyOnesSkipped) {
    EXPECT_EQ(elements("gzip, chunked"), (std::vector<std::string>{"gzip", "chunked"}));
    EXPECT_EQ(elements(" ,a,, b ,"), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(elements("").empty());
}

TEST(FieldLists, StopsAtTheFirstElementVisitAccepts) {
    int visited = 0;
    EXPECT_TRUE(find_list_element("a, b, c", [&](std::string_view element) {
        ++visited;
        return element == "b";
    }));
    EXPECT_EQ(visited, 2);
    EXPECT_FALSE(
        find_list_element("a, c", [](std::string_view element) { return element == "b"; }));
}

}  // namespace
}  // namespace spindle::server

#pragma once

// The PHP headers Spindle's SAPI uses, in one place. Only sapi/*.cpp include this file; nothing
// outside sapi/ sees a Zend type.

#include <php.h>

#include <SAPI.h>
// head.h, php_json.h and php_session.h lack the extern "C" wrapper the other headers have.
extern "C" {
#include <ext/json/php_json.h>
#include <ext/session/php_session.h>
#include <ext/standard/head.h>
}
#include <Zend/zend_exceptions.h>
#include <Zend/zend_extensions.h>
#include <Zend/zend_interfaces.h>
#include <Zend/zend_smart_str.h>
#include <main/php_ini.h>
#include <main/php_main.h>
#include <main/php_output.h>
#include <main/php_variables.h>
#include <ext/spl/spl_exceptions.h>
#include <ext/standard/info.h>

<?php
/**
 * A persistent object cache drop-in for WordPress on APCu (wp-content/object-cache.php), as the
 * APCu Object Cache plugins do it: each request keeps a runtime copy of what it read, and
 * persistent groups live in APCu, which every PHP thread of the server shares, so a value one
 * request changes is what the next request sees, on whichever thread it runs. Keys carry
 * WP_CACHE_KEY_SALT and the blog id; the functions WordPress 6.1 has no fallback for are here,
 * cache-compat.php supplies the *_multiple ones.
 */

function wp_cache_init() {
	$GLOBALS['wp_object_cache'] = new Spindle_APCu_Object_Cache();
}

function wp_cache_add( $key, $data, $group = '', $expire = 0 ) {
	return $GLOBALS['wp_object_cache']->add( $key, $data, $group, (int) $expire );
}

function wp_cache_set( $key, $data, $group = '', $expire = 0 ) {
	return $GLOBALS['wp_object_cache']->set( $key, $data, $group, (int) $expire );
}

function wp_cache_replace( $key, $data, $group = '', $expire = 0 ) {
	return $GLOBALS['wp_object_cache']->replace( $key, $data, $group, (int) $expire );
}

function wp_cache_get( $key, $group = '', $force = false, &$found = null ) {
	return $GLOBALS['wp_object_cache']->get( $key, $group, $force, $found );
}

function wp_cache_delete( $key, $group = '' ) {
	return $GLOBALS['wp_object_cache']->delete( $key, $group );
}

function wp_cache_incr( $key, $offset = 1, $group = '' ) {
	return $GLOBALS['wp_object_cache']->incr( $key, (int) $offset, $group );
}

function wp_cache_decr( $key, $offset = 1, $group = '' ) {
	return $GLOBALS['wp_object_cache']->incr( $key, -(int) $offset, $group );
}

function wp_cache_flush() {
	return $GLOBALS['wp_object_cache']->flush();
}

function wp_cache_close() {
	return true;
}

function wp_cache_add_global_groups( $groups ) {
	$GLOBALS['wp_object_cache']->add_global_groups( (array) $groups );
}

function wp_cache_add_non_persistent_groups( $groups ) {
	$GLOBALS['wp_object_cache']->add_non_persistent_groups( (array) $groups );
}

function wp_cache_switch_to_blog( $blog_id ) {
	$GLOBALS['wp_object_cache']->switch_to_blog( (int) $blog_id );
}

function wp_cache_reset() {
	$GLOBALS['wp_object_cache']->switch_to_blog( get_current_blog_id() );
}

class Spindle_APCu_Object_Cache {
	/** What this request read or wrote, by full key: APCu is asked once per key. */
	private $runtime = array();
	private $global_groups = array();
	private $non_persistent_groups = array();
	private $blog_id = 1;
	private $prefix;
	public $cache_hits = 0;
	public $cache_misses = 0;

	public function __construct() {
		$salt         = defined( 'WP_CACHE_KEY_SALT' ) ? WP_CACHE_KEY_SALT : '';
		$this->prefix = 'wp:' . $salt . ':';
		$this->blog_id = is_multisite() ? get_current_blog_id() : 1;
	}

	private function full_key( $key, $group ) {
		$group = '' === $group ? 'default' : $group;
		$blog  = isset( $this->global_groups[ $group ] ) ? 'global' : $this->blog_id;
		return $this->prefix . $blog . ':' . $group . ':' . $key;
	}

	private function is_persistent( $group ) {
		return ! isset( $this->non_persistent_groups[ '' === $group ? 'default' : $group ] );
	}

	public function get( $key, $group, $force, &$found ) {
		$full = $this->full_key( $key, $group );
		if ( ! $force && array_key_exists( $full, $this->runtime ) ) {
			$found = true;
			++$this->cache_hits;
			return is_object( $this->runtime[ $full ] ) ? clone $this->runtime[ $full ] : $this->runtime[ $full ];
		}
		if ( ! $this->is_persistent( $group ) ) {
			$found = false;
			++$this->cache_misses;
			return false;
		}
		$value = apcu_fetch( $full, $found );
		if ( ! $found ) {
			++$this->cache_misses;
			return false;
		}
		++$this->cache_hits;
		$this->runtime[ $full ] = $value;
		return is_object( $value ) ? clone $value : $value;
	}

	public function set( $key, $data, $group, $expire ) {
		$full = $this->full_key( $key, $group );
		$data = is_object( $data ) ? clone $data : $data;
		$this->runtime[ $full ] = $data;
		return $this->is_persistent( $group ) ? apcu_store( $full, $data, max( 0, $expire ) ) : true;
	}

	public function add( $key, $data, $group, $expire ) {
		if ( wp_suspend_cache_addition() ) {
			return false;
		}
		$full = $this->full_key( $key, $group );
		if ( array_key_exists( $full, $this->runtime ) ) {
			return false;
		}
		if ( $this->is_persistent( $group ) ) {
			if ( ! apcu_add( $full, is_object( $data ) ? clone $data : $data, max( 0, $expire ) ) ) {
				return false;
			}
		}
		$this->runtime[ $full ] = is_object( $data ) ? clone $data : $data;
		return true;
	}

	public function replace( $key, $data, $group, $expire ) {
		$found = false;
		$this->get( $key, $group, true, $found );
		return $found ? $this->set( $key, $data, $group, $expire ) : false;
	}

	public function delete( $key, $group ) {
		$full = $this->full_key( $key, $group );
		unset( $this->runtime[ $full ] );
		return $this->is_persistent( $group ) ? apcu_delete( $full ) : true;
	}

	public function incr( $key, $offset, $group ) {
		$full = $this->full_key( $key, $group );
		if ( $this->is_persistent( $group ) ) {
			// Atomic in APCu: concurrent requests on other threads never lose an increment.
			$value = apcu_inc( $full, $offset, $success );
			if ( ! $success ) {
				return false;
			}
		} else {
			if ( ! isset( $this->runtime[ $full ] ) ) {
				return false;
			}
			$value = (int) $this->runtime[ $full ] + $offset;
		}
		$value                  = max( 0, $value );
		$this->runtime[ $full ] = $value;
		return $value;
	}

	public function flush() {
		$this->runtime = array();
		return apcu_delete( new APCUIterator( '/^' . preg_quote( $this->prefix, '/' ) . '/' ) ) !== false;
	}

	public function add_global_groups( array $groups ) {
		$this->global_groups = array_merge( $this->global_groups, array_fill_keys( $groups, true ) );
	}

	public function add_non_persistent_groups( array $groups ) {
		$this->non_persistent_groups = array_merge( $this->non_persistent_groups, array_fill_keys( $groups, true ) );
	}

	public function switch_to_blog( $blog_id ) {
		$this->blog_id = $blog_id;
	}

	/** What WordPress's debug bar and Site Health read. */
	public function stats() {
		echo '<p><strong>Cache Hits:</strong> ' . (int) $this->cache_hits . '<br /><strong>Cache Misses:</strong> ' . (int) $this->cache_misses . '</p>';
	}
}

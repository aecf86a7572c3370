<?php
// Installs the WordPress site bench/real_apps.py measures, run by `spindle php-cli` with
// WORDPRESS_CONFIG naming the site's configuration (Debian's wp-config.php reads it from
// $_SERVER, which holds the environment on the command line): Twenty Twenty-Three, pretty
// permalinks (so that /wp-json/ routes), 10 posts with 3 approved comments each.

define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = '127.0.0.1';
require '/usr/share/wordpress/wp-load.php';
require ABSPATH . 'wp-admin/includes/upgrade.php';

$installed = wp_install('Spindle bench', 'admin', 'admin@example.test', true, '',
                        bin2hex(random_bytes(12)));
if (is_wp_error($installed)) {
    fwrite(STDERR, $installed->get_error_message() . "\n");
    exit(1);
}
switch_theme('twentytwentythree');
update_option('permalink_structure', '/%postname%/');
flush_rewrite_rules();
// The sample post and page of the installer, so the front page lists only the bench posts.
wp_delete_post(1, true);
wp_delete_post(2, true);

for ($i = 1; $i <= 10; ++$i) {
    $post = wp_insert_post([
        'post_title' => "Bench post $i",
        'post_name' => "bench-post-$i",
        'post_content' => str_repeat("<!-- wp:paragraph --><p>Paragraph of bench post $i, "
            . "long enough to look like an article.</p><!-- /wp:paragraph -->\n", 6),
        'post_status' => 'publish',
        'post_author' => $installed['user_id'],
        'post_date' => sprintf('2026-01-%02d 10:00:00', $i),
    ], true);
    if (is_wp_error($post)) {
        fwrite(STDERR, $post->get_error_message() . "\n");
        exit(1);
    }
    for ($c = 1; $c <= 3; ++$c) {
        wp_insert_comment([
            'comment_post_ID' => $post,
            'comment_author' => "Reader $c",
            'comment_author_email' => "reader$c@example.test",
            'comment_content' => "Comment $c on bench post $i.",
            'comment_approved' => 1,
            'comment_date' => sprintf('2026-01-%02d 12:%02d:00', $i, $c),
        ]);
    }
}
echo "installed\n";

<h2><?= $this->e($title) ?></h2>
<p>Open today, <?= $this->e($opening) ?>, until <?= $this->e($closing) ?>.</p>
<p>Your browser: <?= $this->e($agent) ?></p>

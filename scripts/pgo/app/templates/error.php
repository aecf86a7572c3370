<h2><?= $this->e($title) ?></h2>
<p><?= $this->e($message) ?></p>

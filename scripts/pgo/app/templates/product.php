<article>
  <h2><?= $this->e($product->name) ?></h2>
  <p><?= $this->e($product->category->label()) ?>, added <?= $product->added->format('j M Y') ?></p>
  <p class="price"><?= $this->e($product->price()) ?></p>
</article>
<?php if ($related): ?>
<h3>Related</h3>
<ul>
<?php foreach ($related as $other): ?>
  <li><a href="/products/<?= $other->id ?>/<?= $this->e($other->slug()) ?>"><?= $this->e($other->name) ?></a></li>
<?php endforeach ?>
</ul>
<?php endif ?>
